/**
 * String escaping of the profile format. Names come from class files, where a JVM accepts almost
 * any character (modified UTF-8, JVMS 4.4.7), including TAB, line breaks and unpaired surrogates
 * that UTF-8 cannot carry; escaping keeps one record per line and the file valid UTF-8.
 */

const HEX = '0123456789ABCDEF';

function u(code: number): string {
  return '\\u' + HEX[(code >> 12) & 15] + HEX[(code >> 8) & 15] + HEX[(code >> 4) & 15] + HEX[code & 15];
}

export function escapeField(s: string): string {
  // Fast path: most names need nothing.
  if (!/[\\\u0000-\u001f\u007f\ud800-\udfff]/.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) out += '\\\\';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += u(c);
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      out += s[i]! + s[i + 1]!;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) out += u(c);
    else out += s[i]!;
  }
  return out;
}

/** Undoes escapeField; returns an error text for a malformed escape or a raw control character. */
export function unescapeField(s: string): string | { error: string } {
  if (!/[\\\u0000-\u001f\u007f]/.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const c = ch.charCodeAt(0);
    if (c < 0x20 || c === 0x7f) return { error: `raw control character U+${u(c).slice(2)} (must be escaped)` };
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = s[i + 1];
    if (next === '\\') out += '\\';
    else if (next === 't') out += '\t';
    else if (next === 'n') out += '\n';
    else if (next === 'r') out += '\r';
    else if (next === 'u' && /^[0-9A-Fa-f]{4}$/.test(s.slice(i + 2, i + 6))) {
      out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16));
      i += 4;
    } else return { error: `bad escape sequence "\\${next ?? ''}" (only \\\\, \\t, \\n, \\r and \\uXXXX)` };
    i++;
  }
  return out;
}
