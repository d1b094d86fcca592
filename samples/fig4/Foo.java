// The class Foo of seed 002, Figure 4 (left), in exactly the paper's shape: the while (true) loop
// with an explicit if/return gives sqSum the paper's four basic blocks (2, 3, 2 and 7 bytecodes)
// and sq a single block, so the transform's counts can be checked against §4.4.
class Foo {
    static int sq(int x) {
        return x * x;
    }

    static int sqSum(int from, int to) {
        int result = 0;
        while (true) {
            if (from > to) {
                return result;
            }
            result += sq(from);
            ++from;
        }
    }

    // Not in the paper: prints sqSum(1, 100). Main.main does the same, so that both "java Foo" and
    // "java Main" run this sample. An optional argument repeats the computation (same output).
    public static void main(String[] args) {
        int repeat = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        int result = 0;
        for (int i = 0; i < repeat; i++) {
            result = sqSum(1, 100);
        }
        System.out.println(result);
    }
}
