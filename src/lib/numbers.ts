/**
 * 25000 as "25,000", grouped by hand: a number's `toLocaleString` in a schema or a description
 * built at module load would map ICU's locale data (several MiB of resident memory) into every
 * process at start-up.
 */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}
