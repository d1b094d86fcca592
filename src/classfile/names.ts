/** Names as a Java developer reads them. */

/** An internal name (`com/foo/Bar$Inner`) or a descriptor with slashes, in dotted form (`com.foo.Bar$Inner`). */
export function javaName(internal: string): string {
  return internal.replaceAll('/', '.');
}
