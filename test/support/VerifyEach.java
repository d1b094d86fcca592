import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Like VerifyAll, for many unrelated class files that may share names (fuzzed variants of one class):
 * each case gets a class loader of its own over the classpath, so cases never see each other. A case is one line of the list file, "id TAB file.class [TAB file.class ...]": its
 * classes are defined from their bytes (the name comes from the bytes) and each is linked, which
 * verifies it. One line of output per case:
 *
 *   id OK
 *   id FORMAT  message     ClassFormatError (and UnsupportedClassVersionError) when defined
 *   id VERIFY  message     VerifyError when linked
 *   id MISSING type        NoClassDefFoundError/ClassNotFoundException of another class
 *   id OTHER   throwable   any other failure (other LinkageErrors, SecurityException, ...)
 *   cases=N ok=N format=N verify=N missing=N other=N     (the last line)
 *
 * Usage: java -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationRemote -cp <harness> VerifyEach <list> [<classpath>]
 * Exits 2 when verification of application classes is off. Compiled with javac --release 8.
 */
public final class VerifyEach {
  private static final int MAX_MESSAGE = 600;

  /**
   * Defines the classes of one case from their bytes and loads every other class of the
   * classpath itself (the platform loader is its parent), so that the case's classes share their
   * runtime package, and package-private access, with the classes of their jar.
   */
  static final class CaseLoader extends URLClassLoader {
    final Map<String, Class<?>> defined = new HashMap<String, Class<?>>();

    CaseLoader(URL[] urls, ClassLoader parent) {
      super(urls, parent);
    }

    Class<?> define(byte[] b) {
      Class<?> c = defineClass(null, b, 0, b.length);
      defined.put(c.getName(), c);
      return c;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      Class<?> c = defined.get(name);
      return c != null ? c : super.loadClass(name, resolve);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: VerifyEach <list> [<classpath>]");
      System.exit(64);
    }
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
    String flag = VerifyAll.vmOption("BytecodeVerificationRemote");
    out.println("# java.version=" + System.getProperty("java.version") + " BytecodeVerificationRemote=" + flag);
    if (!"true".equals(flag)) {
      out.flush();
      System.err.println("VerifyEach: bytecode verification of application classes is OFF; refusing to report classes as verified");
      System.exit(2);
    }
    List<URL> urls = new ArrayList<URL>();
    if (args.length == 2) {
      for (String e : args[1].split(File.pathSeparator)) {
        if (e.length() > 0) urls.add(new File(e).getAbsoluteFile().toURI().toURL());
      }
    }
    URL[] cp = urls.toArray(new URL[0]);
    ClassLoader platform = ClassLoader.getSystemClassLoader().getParent();
    int cases = 0, ok = 0, format = 0, verify = 0, missing = 0, other = 0;
    BufferedReader list = new BufferedReader(new InputStreamReader(new FileInputStream(args[0]), "UTF-8"));
    for (String line; (line = list.readLine()) != null; ) {
      if (line.isEmpty()) continue;
      String[] f = line.split("\t");
      String id = f[0];
      cases++;
      CaseLoader loader = new CaseLoader(cp, platform);
      String what;
      try {
        List<Class<?>> classes = new ArrayList<Class<?>>();
        for (int i = 1; i < f.length; i++) classes.add(loader.define(Files.readAllBytes(new File(f[i]).toPath())));
        for (Class<?> c : classes) {
          c.getDeclaredFields();
          c.getDeclaredMethods();
          c.getDeclaredConstructors();
        }
        what = "OK";
        ok++;
      } catch (ClassFormatError e) { // includes UnsupportedClassVersionError
        what = "FORMAT\t" + VerifyAll.oneLine(e.toString());
        format++;
      } catch (VerifyError e) {
        what = "VERIFY\t" + VerifyAll.oneLine(e.getMessage());
        verify++;
      } catch (NoClassDefFoundError e) {
        what = "MISSING\t" + VerifyAll.oneLine(String.valueOf(e.getMessage()));
        missing++;
      } catch (Throwable t) {
        what = "OTHER\t" + VerifyAll.oneLine(t.toString());
        other++;
      }
      loader.close();
      out.println(id + "\t" + what);
    }
    list.close();
    out.println("cases=" + cases + " ok=" + ok + " format=" + format + " verify=" + verify + " missing=" + missing + " other=" + other);
    out.flush();
  }
}
