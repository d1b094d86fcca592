import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

// Reflection: Method.invoke (static, instance, private), methods found by name in
// getDeclaredMethods, constructors, fields, annotations, an InvocationTargetException, a dynamic
// Proxy whose handler is called back by generated code, and a MethodHandle.
//
// Instrumented classes gain synthetic members (methods with extended signatures, identifier
// fields; seed 002 §4.3). Like well-behaved frameworks, this program skips synthetic members when
// it looks members up by name; the output must be the same with and without instrumentation.
public class Main {
    @Retention(RetentionPolicy.RUNTIME)
    @interface Tag {
        String value();
    }

    interface Shape {
        double area();

        String name();
    }

    public static class Greeter {
        private final String who;
        private int greeted;

        public Greeter(String who) {
            this.who = who;
        }

        @Tag("friendly")
        public String greet(String greeting) {
            greeted++;
            return greeting + ", " + who + "!";
        }

        public String greet() {
            return greet("Hello");
        }

        public static int twice(int x) {
            return 2 * x;
        }

        private int secret() {
            return 42 + greeted;
        }

        public void fail(int code) {
            throw new IllegalStateException("failed with " + code);
        }
    }

    public static void main(String[] args) throws Throwable {
        Greeter g = new Greeter("world");

        Method greet = Greeter.class.getMethod("greet", String.class);
        System.out.println("invoke: " + greet.invoke(g, "Hi"));
        System.out.println("annotation: " + greet.getAnnotation(Tag.class).value());

        Method twice = Greeter.class.getDeclaredMethod("twice", int.class);
        System.out.println("static invoke: " + twice.invoke(null, 21));

        Method secret = Greeter.class.getDeclaredMethod("secret");
        secret.setAccessible(true);
        System.out.println("private invoke: " + secret.invoke(g));

        // Look up by name only, the way naive frameworks do, skipping synthetic methods.
        List<String> found = new ArrayList<>();
        for (Method m : Greeter.class.getDeclaredMethods()) {
            if (!m.isSynthetic() && m.getName().equals("greet")) {
                Object r = m.getParameterCount() == 0 ? m.invoke(g) : m.invoke(g, "Hey");
                found.add(m.getParameterCount() + " params -> " + r);
            }
        }
        Collections.sort(found);
        System.out.println("by name: " + found);

        List<String> declared = new ArrayList<>();
        for (Method m : Greeter.class.getDeclaredMethods()) {
            if (!m.isSynthetic()) {
                declared.add(m.toString());
            }
        }
        Collections.sort(declared);
        for (String d : declared) {
            System.out.println("declared: " + d);
        }
        List<String> fields = new ArrayList<>();
        for (Field f : Greeter.class.getDeclaredFields()) {
            if (!f.isSynthetic()) {
                fields.add(f.getName());
            }
        }
        Collections.sort(fields);
        System.out.println("fields: " + fields);

        Constructor<Greeter> ctor = Greeter.class.getConstructor(String.class);
        Greeter other = ctor.newInstance("reflection");
        Field who = Greeter.class.getDeclaredField("who");
        who.setAccessible(true);
        System.out.println("constructor + field: " + who.get(other) + " / " + other.greet());
        Field greeted = Greeter.class.getDeclaredField("greeted");
        greeted.setAccessible(true);
        greeted.setInt(other, 100);
        System.out.println("after setInt: " + secret.invoke(other));

        try {
            Greeter.class.getMethod("fail", int.class).invoke(g, 7);
        } catch (InvocationTargetException e) {
            System.out.println("target exception: " + e.getCause().getClass().getName() + ": " + e.getCause().getMessage());
        }

        Shape square = (Shape) Proxy.newProxyInstance(Main.class.getClassLoader(), new Class<?>[] {Shape.class},
                (proxy, method, margs) -> {
                    if (method.getName().equals("area")) {
                        return 4.0 * 4.0;
                    }
                    if (method.getName().equals("name")) {
                        return "square";
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        System.out.println("proxy: " + square.name() + " " + square.area());

        MethodHandle mh = MethodHandles.lookup().findStatic(Greeter.class, "twice", MethodType.methodType(int.class, int.class));
        int viaHandle = (int) mh.invokeExact(5);
        MethodHandle virtual = MethodHandles.lookup().findVirtual(Greeter.class, "greet",
                MethodType.methodType(String.class, String.class));
        System.out.println("method handles: " + viaHandle + " " + (String) virtual.invokeExact(g, "Yo"));

        Class<?> byName = Class.forName("Main$Greeter");
        System.out.println("forName: " + byName.getSimpleName() + " public methods named greet: "
                + countPublic(byName, "greet"));
    }

    static int countPublic(Class<?> c, String name) {
        int n = 0;
        for (Method m : c.getMethods()) {
            if (!m.isSynthetic() && m.getName().equals(name)) {
                n++;
            }
        }
        return n;
    }
}
