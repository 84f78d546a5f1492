import { defineVendor } from './types.ts';

/** Huawei Cloud OBS (vendor 7) through its S3-compatible API. */
export const huaweiObs = defineVendor({
  vendor: 7,
  name: 'Huawei Cloud OBS',
  endpoint: (id) => `https://obs.${id}.myhuaweicloud.com`,
  regions: [
    [0, 'CN_North_1', 'cn-north-1', 'CN'],
    [1, 'CN_North_4', 'cn-north-4', 'CN'],
    [2, 'CN_East_2', 'cn-east-2', 'CN'],
    [3, 'CN_East_3', 'cn-east-3', 'CN'],
    [4, 'CN_South_1', 'cn-south-1', 'CN'],
    [5, 'CN_Southwest_2', 'cn-southwest-2', 'CN'],
    // Huawei's ap-southeast-1 is Hong Kong: outside mainland China, so AP.
    [6, 'AP_Southeast_1', 'ap-southeast-1', 'AP'],
    [7, 'AP_Southeast_2', 'ap-southeast-2', 'AP'],
    [8, 'AP_Southeast_3', 'ap-southeast-3', 'AP'],
    [9, 'AF_South_1', 'af-south-1', 'EU'],
    [10, 'SA_Argentina_1', 'sa-argentina-1', 'NA'],
    [11, 'SA_Peru_1', 'sa-peru-1', 'NA'],
    [12, 'NA_Mexico_1', 'na-mexico-1', 'NA'],
    [13, 'SA_Brazil_1', 'sa-brazil-1', 'NA'],
    [14, 'LA_South_2', 'la-south-2', 'NA'],
    [15, 'SA_Chile_1', 'sa-chile-1', 'NA'],
  ],
});
