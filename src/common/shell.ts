/**
 * Quoting words for a POSIX shell, for the commands the programs print.
 * @module
 */

/** Quote a word for a POSIX shell when it needs it, in single quotes: nothing expands. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Quote a word for a POSIX shell when it needs it, in double quotes: `$HOME` still expands. */
export function shellQuoteExpanding(s: string): string {
  return /^[\w@%+=:,./\[\]-]+$/.test(s) ? s : `"${s.replace(/(["\\`])/g, "\\$1")}"`;
}
