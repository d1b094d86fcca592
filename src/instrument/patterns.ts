/**
 * --include/--exclude class patterns, in Java names: `com.foo.Bar`, `com.foo.*` (one package),
 * `com.foo.**` (a package and its subpackages), `*Test`, and `$` for nested classes as usual.
 */
import { javaName } from '../classfile/names.js';
export function compileClassPattern(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        re += '.*';
        i++;
      } else {
        re += '[^.]*';
      }
    } else if (c === '?') {
      re += '[^.]';
    } else {
      re += c.replace(/[\\^$+?.()|[\]{}]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

export class ClassFilter {
  private readonly include: RegExp[];
  private readonly exclude: RegExp[];
  constructor(include: string[], exclude: string[]) {
    this.include = include.map(compileClassPattern);
    this.exclude = exclude.map(compileClassPattern);
  }
  /** `internalName` as in the class file (`com/foo/Bar$Baz`). */
  accepts(internalName: string): boolean {
    const dotted = javaName(internalName);
    if (this.include.length > 0 && !this.include.some((r) => r.test(dotted))) return false;
    return !this.exclude.some((r) => r.test(dotted));
  }
}
