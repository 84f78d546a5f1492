import { defineVendor } from './types.ts';

/** Alibaba Cloud OSS (vendor 2) through its S3-compatible API, virtual-hosted buckets. */
export const alibabaOss = defineVendor({
  vendor: 2,
  name: 'Alibaba Cloud OSS',
  options: ['sts', 'tag'],
  endpoint: (id) => `https://oss-${id}.aliyuncs.com`,
  regions: [
    [0, 'CN_Hangzhou', 'cn-hangzhou', 'CN'],
    [1, 'CN_Shanghai', 'cn-shanghai', 'CN'],
    [2, 'CN_Qingdao', 'cn-qingdao', 'CN'],
    [3, 'CN_Beijing', 'cn-beijing', 'CN'],
    [4, 'CN_Zhangjiakou', 'cn-zhangjiakou', 'CN'],
    [5, 'CN_Huhehaote', 'cn-huhehaote', 'CN'],
    [6, 'CN_Shenzhen', 'cn-shenzhen', 'CN'],
    // Hong Kong is served from outside mainland China: AP.
    [7, 'CN_Hongkong', 'cn-hongkong', 'AP'],
    [8, 'US_West_1', 'us-west-1', 'NA'],
    [9, 'US_East_1', 'us-east-1', 'NA'],
    [10, 'AP_Southeast_1', 'ap-southeast-1', 'AP'],
    [11, 'AP_Southeast_2', 'ap-southeast-2', 'AP'],
    [12, 'AP_Southeast_3', 'ap-southeast-3', 'AP'],
    [13, 'AP_Southeast_5', 'ap-southeast-5', 'AP'],
    [14, 'AP_Northeast_1', 'ap-northeast-1', 'AP'],
    [15, 'AP_South_1', 'ap-south-1', 'AP'],
    [16, 'EU_Central_1', 'eu-central-1', 'EU'],
    [17, 'EU_West_1', 'eu-west-1', 'EU'],
    // OSS calls its Dubai region me-east-1; the recording API's label is EU_East_1 (docs/storage.md).
    [18, 'EU_East_1', 'me-east-1', 'EU'],
    [19, 'AP_Southeast_6', 'ap-southeast-6', 'AP'],
    [20, 'CN_Heyuan', 'cn-heyuan', 'CN'],
    [21, 'CN_Guangzhou', 'cn-guangzhou', 'CN'],
    [22, 'CN_Chengdu', 'cn-chengdu', 'CN'],
    [23, 'CN_Nanjing', 'cn-nanjing', 'CN'],
    [24, 'CN_Fuzhou', 'cn-fuzhou', 'CN'],
    [25, 'CN_Wulanchabu', 'cn-wulanchabu', 'CN'],
    [26, 'CN_Northeast_2', 'cn-northeast-2', 'CN'],
    [27, 'CN_Southeast_7', 'cn-southeast-7', 'CN'],
  ],
});
