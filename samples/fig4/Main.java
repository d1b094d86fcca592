// Runs the sample like the other folders' Main classes: the same as Foo.main.
public class Main {
    public static void main(String[] args) {
        Foo.main(args);
    }
}
