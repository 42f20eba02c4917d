/** One row (id 1): the version of everything access decisions are made from (see the access-version migration). */
export interface AccessVersionTable {
  id: number;
  version: number | string | bigint;
}
