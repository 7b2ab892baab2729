/** Counted nouns for messages people read: "1 run", "2 runs", "0 fills". */

/** `n` and `noun`, with the noun's regular plural unless `n` is exactly 1 (pass `plural` for irregular nouns). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
