// The regression gate's sample: prices a day of orders against a product catalogue sorted by id.
// With -Dregression.slow=true, findProduct scans the catalogue linearly instead of searching it
// binarily: the same results, O(n) instead of O(log n) per lookup, the kind of change that every
// functional test passes. `komorium-ts diff base.kprof slow.kprof --fail-under 90` tells the two
// apart and names findProduct first. Deterministic; optional arguments: the number of products
// and of orders (default 1000 and 10000).
public class Main {
    static final boolean SLOW = Boolean.getBoolean("regression.slow");

    static final class Product {
        final int id;
        final String name;
        final long priceCents;

        Product(int id, String name, long priceCents) {
            this.id = id;
            this.name = name;
            this.priceCents = priceCents;
        }
    }

    /** Ids 3, 10, 17, ...: sorted, with gaps. */
    static Product[] catalogue(int n) {
        Product[] products = new Product[n];
        for (int i = 0; i < n; i++) {
            int id = i * 7 + 3;
            products[i] = new Product(id, name(id), 100 + (id * 37L) % 9000);
        }
        return products;
    }

    static String name(int id) {
        StringBuilder sb = new StringBuilder();
        int x = id * 7919 + 13;
        for (int k = 0; k < 8; k++) {
            sb.append((char) ('a' + x % 26));
            x = x / 26 + k * 17;
        }
        return sb.toString();
    }

    static Product findProduct(Product[] catalogue, int id) {
        if (SLOW) {
            for (Product p : catalogue) {
                if (p.id == id) {
                    return p;
                }
            }
            return null;
        }
        int lo = 0;
        int hi = catalogue.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = catalogue[mid].id;
            if (c < id) {
                lo = mid + 1;
            } else if (c > id) {
                hi = mid - 1;
            } else {
                return catalogue[mid];
            }
        }
        return null;
    }

    /** A linear congruential generator: the same orders on every JVM. */
    static int seed = 12345;

    static int next(int bound) {
        seed = seed * 1103515245 + 12345;
        return ((seed >>> 8) & 0xFFFFFF) % bound;
    }

    /** Most lines name a product of the catalogue; about one in ten an id that does not exist. */
    static int[][] orders(int count, int products) {
        int[][] orders = new int[count][];
        for (int i = 0; i < count; i++) {
            int lines = 1 + next(5);
            int[] order = new int[2 * lines];
            for (int l = 0; l < lines; l++) {
                order[2 * l] = next(10) == 0 ? next(products * 7) : next(products) * 7 + 3;
                order[2 * l + 1] = 1 + next(9);
            }
            orders[i] = order;
        }
        return orders;
    }

    static long discount(long cents, int items) {
        if (items >= 20) {
            return cents / 10;
        }
        return items >= 10 ? cents / 20 : 0;
    }

    static String formatCents(long cents) {
        long frac = cents % 100;
        return (cents / 100) + "." + (frac < 10 ? "0" : "") + frac;
    }

    static long checksum(String s) {
        long h = 1125899906842597L;
        for (int i = 0; i < s.length(); i++) {
            h = 31 * h + s.charAt(i);
        }
        return h;
    }

    public static void main(String[] args) {
        int productCount = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int orderCount = args.length > 1 ? Integer.parseInt(args[1]) : 10000;
        Product[] catalogue = catalogue(productCount);
        int[][] orders = orders(orderCount, productCount);
        long revenue = 0;
        long invoices = 0;
        int lines = 0;
        int missing = 0;
        for (int[] order : orders) {
            long total = 0;
            int items = 0;
            StringBuilder invoice = new StringBuilder();
            for (int l = 0; l < order.length; l += 2) {
                lines++;
                Product p = findProduct(catalogue, order[l]);
                if (p == null) {
                    missing++;
                    continue;
                }
                total += p.priceCents * order[l + 1];
                items += order[l + 1];
                invoice.append(p.name).append(" x").append(order[l + 1]).append('\n');
            }
            total -= discount(total, items);
            invoice.append("total ").append(formatCents(total));
            invoices = invoices * 31 + checksum(invoice.toString());
            revenue += total;
        }
        System.out.println("orders: " + orders.length + ", lines: " + lines + ", missing products: " + missing);
        System.out.println("revenue: " + formatCents(revenue));
        System.out.println("invoices checksum: " + invoices);
    }
}
