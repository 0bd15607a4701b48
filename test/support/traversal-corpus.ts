/**
 * Path-traversal payloads for the files API, as they appear in a request URL after
 * `/api/files/<scope>/` (so `%2e` is sent as the three characters `%2e`). Shared by the unit
 * test of the path parser and the HTTP test that sends them raw over TCP.
 *
 * Every payload here is refused by the path parser alone (PATH_TRAVERSAL): none is a safe
 * relative path. The HTTP test adds the payloads that need the disk (links planted in the
 * scope) and lookalike names that are safe but must not exist.
 */

/** A sentinel file's name, placed outside the scope by the HTTP test, at several depths. */
export const SENTINEL = 'secret.txt';

const dotDot = ['..', '%2e%2e', '%2E%2E', '.%2e', '%2e.', '%2E.', '.%2E'];
const slashes = ['%2f', '%2F', '%5c', '%5C'];

/** Literal and percent-encoded dot-dot forms, at several depths. */
function dotDotForms(): string[] {
  const out: string[] = [];
  for (const dd of dotDot) {
    out.push(dd, `${dd}/`, `${dd}/${SENTINEL}`, `${dd}/${dd}/${SENTINEL}`, `lobby/${dd}/${dd}/${SENTINEL}`, `${dd}/${dd}/${dd}/${dd}/${dd}/${dd}/etc/passwd`);
  }
  // Encoded separators around dot-dot: the separator never decodes into a path.
  for (const s of slashes) out.push(`..${s}${SENTINEL}`, `%2e%2e${s}${SENTINEL}`, `..${s}..${s}${SENTINEL}`, `lobby${s}..${s}..${s}${SENTINEL}`, `a${s}b`);
  return out;
}

export const LEXICAL_PAYLOADS: readonly string[] = [
  ...dotDotForms(),
  // Double and triple encoding: decoded once, they must not survive as another escape.
  `%252e%252e/${SENTINEL}`,
  `%252E%252E/${SENTINEL}`,
  `%252e%252e%252f${SENTINEL}`,
  `..%252f${SENTINEL}`,
  `..%255c${SENTINEL}`,
  `%25252e%25252e/${SENTINEL}`,
  `%2525252e%2525252e/${SENTINEL}`,
  `%252fetc%252fpasswd`,
  `lobby/%252e%252e/%252e%252e/${SENTINEL}`,
  // Filter-evasion spellings.
  `....//${SENTINEL}`,
  `....//....//${SENTINEL}`,
  `..././${SENTINEL}`,
  `.../${SENTINEL}`,
  `...`,
  `..../${SENTINEL}`,
  `./../${SENTINEL}`,
  `.//${SENTINEL}`,
  `./${SENTINEL}`,
  `.`,
  `lobby/./../../${SENTINEL}`,
  `lobby//${SENTINEL}`,
  // Dots and spaces (Windows trims trailing dots and spaces: ".. " is "..").
  `.. /${SENTINEL}`,
  `..%20/${SENTINEL}`,
  `..%20%20/${SENTINEL}`,
  `. ./${SENTINEL}`,
  `..%09/${SENTINEL}`,
  // Backslashes, raw and encoded.
  `..\\${SENTINEL}`,
  `..\\..\\${SENTINEL}`,
  `lobby\\..\\..\\${SENTINEL}`,
  `\\etc\\passwd`,
  `%5cetc%5cpasswd`,
  `..%5c..%5c..%5cwindows%5cwin.ini`,
  // Absolute paths.
  `/etc/passwd`,
  `//etc/passwd`,
  `///etc/passwd`,
  `%2fetc%2fpasswd`,
  `%2Fetc/passwd`,
  `/tmp/${SENTINEL}`,
  // Windows drives and UNC paths.
  `C:\\Windows\\win.ini`,
  `C:/Windows/win.ini`,
  `c:`,
  `C%3a%5cWindows%5cwin.ini`,
  `C%3A/Windows/win.ini`,
  `lobby/D:/x`,
  `\\\\server\\share\\x`,
  `%5c%5cserver%5cshare`,
  // NUL and other control characters.
  `%00`,
  `${SENTINEL}%00.png`,
  `..%00/${SENTINEL}`,
  `lobby%00/../../${SENTINEL}`,
  `a%0ab`,
  `a%0d%0aSet-Cookie:x`,
  `%7f`,
  `a%1bb`,
  `%c2%85`,
  `%c2%9f`,
  // Overlong and invalid UTF-8 for "." and "/" (classic IIS and Tomcat bypasses).
  `%c0%ae%c0%ae/${SENTINEL}`,
  `%c0%ae%c0%ae%c0%af${SENTINEL}`,
  `%c0%af`,
  `%c1%9c`,
  `%c0%2e%c0%2e/${SENTINEL}`,
  `%e0%80%ae%e0%80%ae/${SENTINEL}`,
  `%f0%80%80%ae%f0%80%80%ae/${SENTINEL}`,
  `%fc%80%80%80%80%af`,
  `%ed%a0%80`,
  `%ff%fe`,
  `%e2%82`,
  // Malformed escapes.
  `%`,
  `x%`,
  `%zz`,
  `%2`,
  `%%32%65%%32%65/${SENTINEL}`,
  // Too long.
  `${'a/'.repeat(2100)}x`,
  'x'.repeat(300),
];
