import java.util.Arrays;

// Calls into native and intrinsic JDK methods (System.arraycopy, Object.hashCode of a String,
// Object.clone, Math and StrictMath, Float/Double bit conversions, Class and Thread natives) and a
// native method of its own that has no library (UnsatisfiedLinkError). Floating-point results are
// printed rounded; identity hash codes are only compared, never printed.
public class Main implements Cloneable {
    int value;

    static native int notLinked(int x);

    @Override
    protected Main clone() throws CloneNotSupportedException {
        return (Main) super.clone();
    }

    public static void main(String[] args) throws Exception {
        int[] src = new int[20];
        for (int i = 0; i < src.length; i++) {
            src[i] = i * i;
        }
        int[] dst = new int[25];
        System.arraycopy(src, 5, dst, 10, 10);
        System.arraycopy(dst, 10, dst, 12, 5);
        System.out.println("arraycopy: " + Arrays.toString(dst));

        Object s = "komorium";
        System.out.println("String.hashCode via Object: " + s.hashCode());
        Object plain = new Object();
        System.out.println("identity hash consistent: " + (System.identityHashCode(plain) == plain.hashCode()));

        System.out.printf("sqrt(2)=%.10f%n", Math.sqrt(2));
        System.out.printf("sin(1)=%.10f cos(1)=%.10f%n", Math.sin(1), Math.cos(1));
        System.out.printf("exp(1)=%.10f log(10)=%.10f pow(2,0.5)=%.10f%n", Math.exp(1), Math.log(10), Math.pow(2, 0.5));
        System.out.printf("cbrt(27)=%.1f atan2(1,1)=%.10f%n", StrictMath.cbrt(27), StrictMath.atan2(1, 1));
        System.out.println("floorMod(-7,3)=" + Math.floorMod(-7, 3) + " abs(MIN)=" + Math.abs(Integer.MIN_VALUE));
        System.out.println("doubleToRawLongBits(1.5)=" + Long.toHexString(Double.doubleToRawLongBits(1.5)));
        System.out.println("floatToIntBits(-0.25)=" + Integer.toHexString(Float.floatToIntBits(-0.25f)));
        System.out.println("intBitsToFloat=" + Float.intBitsToFloat(0x40490fdb));
        System.out.println("bitCount=" + Integer.bitCount(0xF0F0) + " reverse=" + Integer.reverse(1)
                + " ntz=" + Long.numberOfTrailingZeros(1L << 40));

        long acc = 0;
        for (int i = 1; i <= 200_000; i++) {
            acc += (long) Math.sqrt(i) + Math.round(Math.sin(i) * 1000) + Integer.bitCount(i);
        }
        System.out.println("loop=" + acc);

        Main m = new Main();
        m.value = 7;
        Main c = m.clone();
        System.out.println("clone: " + (c != m) + " " + c.value);
        int[] copy = src.clone();
        System.out.println("array clone: " + (copy != src) + " " + copy[19]);

        System.out.println("class: " + Class.forName("java.lang.String").getName() + " " + m.getClass().getName());
        System.out.println("thread: " + Thread.currentThread().getName());
        System.out.println("intern: " + (new String("abc").intern() == "abc"));

        try {
            notLinked(1);
            System.out.println("linked?");
        } catch (UnsatisfiedLinkError e) {
            System.out.println("UnsatisfiedLinkError caught");
        }
    }
}
