import org.sunflow.SunflowAPI;
import org.sunflow.core.display.FileDisplay;
import org.sunflow.core.parser.SCParser;
import org.sunflow.system.UI;

/**
 * Renders a Sunflow .sc scene to an image with one thread, as SunflowGUI -nogui -threads 1 -v 0 -o
 * would. Debian's SunflowGUI cannot: its SunflowAPI.create is patched to throw ("Removed parser support"),
 * and its plugin registry has no parsers, but SCParser itself is there. Used by komorium-ts `npm run bench`; never instrumented.
 */
public final class SunflowRender {
    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: SunflowRender scene.sc out.png");
            System.exit(2);
        }
        UI.verbosity(Integer.getInteger("sunflow.verbosity", 0));
        SunflowAPI api = new SunflowAPI();
        if (!new SCParser().parse(args[0], api)) {
            System.err.println("cannot parse " + args[0]);
            System.exit(1);
        }
        api.parameter("threads", 1);
        api.options(SunflowAPI.DEFAULT_OPTIONS);
        api.render(SunflowAPI.DEFAULT_OPTIONS, new FileDisplay(args[1]));
    }
}
