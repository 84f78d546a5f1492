import { defineVendor } from './types.ts';

/** Amazon S3 (vendor 1). 17 and 23 are not region numbers (docs/storage.md, appendix: region numbers). */
export const amazonS3 = defineVendor({
  vendor: 1,
  name: 'Amazon S3',
  options: ['sts', 'sse', 'tag'],
  endpoint: (id) => (id.startsWith('cn-') ? `https://s3.${id}.amazonaws.com.cn` : `https://s3.${id}.amazonaws.com`),
  regions: [
    [0, 'US_EAST_1', 'us-east-1', 'NA'],
    [1, 'US_EAST_2', 'us-east-2', 'NA'],
    [2, 'US_WEST_1', 'us-west-1', 'NA'],
    [3, 'US_WEST_2', 'us-west-2', 'NA'],
    [4, 'EU_WEST_1', 'eu-west-1', 'EU'],
    [5, 'EU_WEST_2', 'eu-west-2', 'EU'],
    [6, 'EU_WEST_3', 'eu-west-3', 'EU'],
    [7, 'EU_CENTRAL_1', 'eu-central-1', 'EU'],
    [8, 'AP_SOUTHEAST_1', 'ap-southeast-1', 'AP'],
    [9, 'AP_SOUTHEAST_2', 'ap-southeast-2', 'AP'],
    [10, 'AP_NORTHEAST_1', 'ap-northeast-1', 'AP'],
    [11, 'AP_NORTHEAST_2', 'ap-northeast-2', 'AP'],
    // The four areas have no South America, Africa or Middle East: Americas go to NA, the rest to EU.
    [12, 'SA_EAST_1', 'sa-east-1', 'NA'],
    [13, 'CA_CENTRAL_1', 'ca-central-1', 'NA'],
    [14, 'AP_SOUTH_1', 'ap-south-1', 'AP'],
    [15, 'CN_NORTH_1', 'cn-north-1', 'CN'],
    [16, 'CN_NORTHWEST_1', 'cn-northwest-1', 'CN'],
    [18, 'AF_SOUTH_1', 'af-south-1', 'EU'],
    [19, 'AP_EAST_1', 'ap-east-1', 'AP'],
    [20, 'AP_NORTHEAST_3', 'ap-northeast-3', 'AP'],
    [21, 'EU_NORTH_1', 'eu-north-1', 'EU'],
    [22, 'ME_SOUTH_1', 'me-south-1', 'EU'],
    [24, 'AP_SOUTHEAST_3', 'ap-southeast-3', 'AP'],
    [25, 'EU_SOUTH_1', 'eu-south-1', 'EU'],
  ],
});
