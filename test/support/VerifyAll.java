import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

/**
 * Loads and links every class of a jar or class folder in a fresh URLClassLoader, so that HotSpot
 * verifies each one, and reports every problem on stdout, one line each:
 *
 *   VERIFY  <class> <message>        java.lang.VerifyError (message names the method: "Location: a/B.m()V @12: ...")
 *   MISSING <class> <missing type>   NoClassDefFoundError / ClassNotFoundException of a dependency
 *   OTHER   <class> <throwable>      any other LinkageError (ClassFormatError, IncompatibleClassChangeError, ...) or failure
 *   classes=N verified=N verifyErrors=N missing=N other=N     (the last line)
 *
 * Usage: java -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationRemote -cp <harness> VerifyAll <jar-or-dir> [<extra classpath>]
 *
 * Verification: HotSpot verifies every class loaded by a class loader other than the boot loader when
 * BytecodeVerificationRemote is true, which is the default (only -Xverify:none / -noverify /
 * -XX:-BytecodeVerificationRemote, a diagnostic flag, turn it off). The caller passes -XX:+BytecodeVerificationRemote
 * explicitly, and this program checks the flag at run time and exits 2 if it is off.
 * Class.forName(name, false, loader) loads without initializing (no static initializer runs);
 * getDeclaredFields/Methods/Constructors then force linking (JVM_GetClassDeclared* link the class
 * first), and linking verifies. A class whose verification needs an absent class, or whose member
 * signatures name one, is reported as MISSING, not as verified.
 *
 * Compiled with javac --release 8 so it runs on any JDK from 8 on.
 */
public final class VerifyAll {
  private static final int MAX_MESSAGE = 4000;

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: VerifyAll <jar-or-dir> [<extra classpath>]");
      System.exit(64);
    }
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
    String flag = vmOption("BytecodeVerificationRemote");
    out.println("# java.version=" + System.getProperty("java.version") + " BytecodeVerificationRemote=" + flag);
    if (!"true".equals(flag)) {
      out.flush();
      System.err.println("VerifyAll: bytecode verification of application classes is OFF (BytecodeVerificationRemote="
          + flag + "); refusing to report classes as verified");
      System.exit(2);
    }

    File target = new File(args[0]);
    if (!target.exists()) {
      System.err.println("VerifyAll: no such jar or folder: " + target);
      System.exit(66);
    }
    List<URL> urls = new ArrayList<URL>();
    urls.add(target.getAbsoluteFile().toURI().toURL());
    if (args.length == 2) {
      for (String e : args[1].split(File.pathSeparator)) {
        if (e.length() > 0) urls.add(new File(e).getAbsoluteFile().toURI().toURL());
      }
    }
    List<String> names = target.isDirectory() ? listDir(target) : listJar(target);

    // Parent: the platform loader on 9+ (java.sql, java.scripting, ... visible, the harness itself not),
    // the extension loader on 8. The system loader's parent is exactly that.
    ClassLoader parent = ClassLoader.getSystemClassLoader().getParent();
    URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), parent);

    int verified = 0, verifyErrors = 0, missing = 0, other = 0;
    for (String name : names) {
      try {
        Class<?> c = Class.forName(name, false, loader);
        if (c.getClassLoader() != loader) {
          other++;
          out.println("OTHER " + name + " shadowed: loaded by " + c.getClassLoader() + " instead of the jar under test");
          continue;
        }
        c.getDeclaredFields();
        c.getDeclaredMethods();
        c.getDeclaredConstructors();
        verified++;
      } catch (VerifyError e) {
        verifyErrors++;
        out.println("VERIFY " + name + " " + oneLine(e.getMessage()));
      } catch (NoClassDefFoundError e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("wrong name") || m.replace('/', '.').equals(name)) {
          other++;
          out.println("OTHER " + name + " " + oneLine(e.toString()));
        } else {
          missing++;
          out.println("MISSING " + name + " " + m.replace('/', '.'));
        }
      } catch (ClassNotFoundException e) {
        String m = String.valueOf(e.getMessage());
        if (m.equals(name)) {
          other++;
          out.println("OTHER " + name + " not found under its own name: " + oneLine(e.toString()));
        } else {
          missing++;
          out.println("MISSING " + name + " " + m.replace('/', '.'));
        }
      } catch (Throwable t) { // other LinkageErrors, SecurityException (signed jars), ...
        other++;
        out.println("OTHER " + name + " " + oneLine(t.toString()));
      }
    }
    out.println("classes=" + names.size() + " verified=" + verified + " verifyErrors=" + verifyErrors
        + " missing=" + missing + " other=" + other);
    out.flush();
    loader.close();
  }

  /** Also used by VerifyEach, which is compiled with this file. */
  static String vmOption(String name) {
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      Object r = server.invoke(new ObjectName("com.sun.management:type=HotSpotDiagnostic"), "getVMOption",
          new Object[] {name}, new String[] {"java.lang.String"});
      return String.valueOf(((CompositeData) r).get("value"));
    } catch (Exception e) {
      return "unknown(" + e + ")";
    }
  }

  /** Class names of a jar's base entries; multi-release variants load through the base name. */
  private static List<String> listJar(File jar) throws IOException {
    List<String> names = new ArrayList<String>();
    JarFile jf = new JarFile(jar);
    try {
      for (Enumeration<JarEntry> en = jf.entries(); en.hasMoreElements(); ) {
        String n = en.nextElement().getName();
        if (n.endsWith(".class") && !n.startsWith("META-INF/")) addName(names, n);
      }
    } finally {
      jf.close();
    }
    Collections.sort(names);
    return names;
  }

  private static List<String> listDir(File dir) {
    List<String> names = new ArrayList<String>();
    walk(dir, "", names);
    Collections.sort(names);
    return names;
  }

  private static void walk(File dir, String prefix, List<String> names) {
    File[] files = dir.listFiles();
    if (files == null) return;
    for (File f : files) {
      String rel = prefix + f.getName();
      if (f.isDirectory()) {
        if (!(prefix.isEmpty() && f.getName().equals("META-INF"))) walk(f, rel + "/", names);
      } else if (rel.endsWith(".class")) {
        addName(names, rel);
      }
    }
  }

  private static void addName(List<String> names, String entry) {
    String n = entry.substring(0, entry.length() - ".class".length());
    if (n.equals("module-info") || n.endsWith("/module-info")) return; // not code
    names.add(n.replace('/', '.'));
  }

  /** The message on one line: "Bad type on operand stack | Location: a/B.m()V @3: ... | Reason: ...". */
  static String oneLine(String s) {
    if (s == null) return "(no message)";
    int cut = s.indexOf("Current Frame:");
    if (cut > 0) s = s.substring(0, cut);
    s = s.replace("Exception Details:", "").replaceAll("\\s*\\n\\s*", " | ").replaceAll("(\\| )+", "| ").trim();
    if (s.endsWith("|")) s = s.substring(0, s.length() - 1).trim();
    s = s.replace("Location: |", "Location:").replace("Reason: |", "Reason:");
    return s.length() > MAX_MESSAGE ? s.substring(0, MAX_MESSAGE) + "..." : s;
  }
}
