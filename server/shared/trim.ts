// A run of one character trimmed off an end of a text by a scan. A regular expression such as
// /\/+$/ tries the run again from each of its positions, so a long run (a header or body value of
// slashes and then a letter) takes time that grows with the square of its length. Pure.

/** `text` without the run of `char` (one UTF-16 unit) it starts with. */
export function trimStartOf(text: string, char: string): string {
  const code = char.charCodeAt(0);
  let start = 0;
  while (start < text.length && text.charCodeAt(start) === code) start++;
  return text.slice(start);
}

/** `text` without the run of `char` (one UTF-16 unit) it ends with. */
export function trimEndOf(text: string, char: string): string {
  const code = char.charCodeAt(0);
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === code) end--;
  return text.slice(0, end);
}
