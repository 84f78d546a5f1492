import { defineVendor } from './types.ts';

/** Baidu AI Cloud BOS (vendor 8) through its S3-compatible endpoint `s3.<region>.bcebos.com`. */
export const baiduBos = defineVendor({
  vendor: 8,
  name: 'Baidu AI Cloud BOS',
  endpoint: (id) => `https://s3.${id}.bcebos.com`,
  regions: [
    // 0 Beijing is only in the older list; still accepted so old integrations keep working.
    [0, 'Beijing', 'bj', 'CN'],
    [1, 'Baoding', 'bd', 'CN'],
    [2, 'Suzhou', 'su', 'CN'],
    [3, 'Guangzhou', 'gz', 'CN'],
    [4, 'Hongkong', 'hkg', 'AP'],
    [5, 'Singapore', 'sin', 'AP'],
    [6, 'Wuhan', 'fwh', 'CN'],
    [7, 'Shanghai', 'fsh', 'CN'],
  ],
});
