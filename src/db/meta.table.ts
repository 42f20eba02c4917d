/** Instance-wide facts, such as whether the first-start bootstrap has run. */
export interface MetaTable {
  key: string;
  value: string;
}
