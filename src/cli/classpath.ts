import { delimiter } from 'node:path';

/** `--classpath a.jar:b.jar`, as java and javac take it, or `--classpath a.jar b.jar`: the elements. */
export function classpathElements(args: readonly string[]): string[] {
  return args.flatMap((c) => c.split(delimiter)).filter((c) => c !== '');
}

export const CLASSPATH_HELP = `several arguments, or one list separated by '${delimiter}' as java's -cp`;
