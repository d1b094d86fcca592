import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import org.jacoco.core.instr.Instrumenter;
import org.jacoco.core.runtime.OfflineInstrumentationAccessGenerator;

/**
 * JaCoCo's offline instrumentation of one jar, as `jacoco-cli instrument` or the Maven plugin's
 * instrument goal does it: Instrumenter.instrumentAll with an OfflineInstrumentationAccessGenerator.
 * Usage: JacocoInstrument in.jar out.jar. Used by komorium-ts `npm run bench`.
 */
public final class JacocoInstrument {
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: JacocoInstrument in.jar out.jar");
            System.exit(2);
        }
        // Debian's org.jacoco.agent.rt.jar is built unshaded: its Offline class is
        // org/jacoco/agent/rt/internal/Offline, not the internal_<hash>/Offline that
        // JaCoCo.RUNTIMEPACKAGE names, so the runtime class can be given by -Djacoco.offline.runtime.
        String runtime = System.getProperty("jacoco.offline.runtime");
        // That constructor is package-private (JaCoCo's own tests use it), hence reflection.
        OfflineInstrumentationAccessGenerator generator;
        if (runtime == null) {
            generator = new OfflineInstrumentationAccessGenerator();
        } else {
            Constructor<OfflineInstrumentationAccessGenerator> c =
                    OfflineInstrumentationAccessGenerator.class.getDeclaredConstructor(String.class);
            c.setAccessible(true);
            generator = c.newInstance(runtime);
        }
        Instrumenter instrumenter = new Instrumenter(generator);
        int n;
        try (InputStream in = new BufferedInputStream(new FileInputStream(args[0]));
                OutputStream out = new BufferedOutputStream(new FileOutputStream(args[1]))) {
            n = instrumenter.instrumentAll(in, out, args[0]);
        }
        System.out.println("jacoco: instrumented " + n + " classes of " + args[0]);
    }
}
