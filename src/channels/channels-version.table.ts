/** One row (id 1): the version of everything a channel list shows (see the channels-version migration). */
export interface ChannelsVersionTable {
  id: number;
  version: number | string | bigint;
}
