/**
 * A program with planted hot data streams, for the data-streams profile kind: every round walks
 * the same linked list of eight nodes (Node.value, Main.scale, Node.next of each node) and the
 * same table of sixteen ints, so the same references repeat in the same order, round after round.
 *
 *   komorium-ts instrument streams.jar --profile data-streams --layout exhaustive -o exhaustive.jar
 *   java -cp exhaustive.jar Main 20000 && komorium-ts report komorium.kprof
 */
public class Main {
    static final class Node {
        int value;
        Node next;
    }

    static int scale = 3;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20000;
        Node head = null;
        for (int i = 0; i < 8; i++) {
            Node x = new Node();
            x.value = i;
            x.next = head;
            head = x;
        }
        int[] table = new int[16];
        for (int i = 0; i < table.length; i++) {
            table[i] = i * i;
        }
        long sum = 0;
        for (int round = 0; round < rounds; round++) {
            for (Node x = head; x != null; x = x.next) {
                sum += x.value * scale;
            }
            for (int i = 0; i < table.length; i++) {
                sum += table[i];
            }
            if (round % 1000 == 999) {
                table[round % 16]++;
            }
        }
        System.out.println("rounds " + rounds + " sum " + sum);
    }
}
