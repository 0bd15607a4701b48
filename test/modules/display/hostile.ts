/** Text that breaks hand-written TOML: quotes, backslashes, triple quotes, escapes as literal characters, brackets, comments, unicode. */
export const HOSTILE = [
  'say "hi" \\ there',
  '"""',
  "'''",
  'a \\n b \\t c \\u0041 \\"',
  '[display] name = "x"',
  '# not a comment',
  '&b★ Ünïcödé 🎉 中文 ||frame2||frame3',
  '=',
  '',
] as const;
