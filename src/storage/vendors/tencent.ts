import { defineVendor } from './types.ts';

/** Tencent Cloud COS (vendor 3) through its S3-compatible API. Its `AP_` mainland regions are area CN. */
export const tencentCos = defineVendor({
  vendor: 3,
  name: 'Tencent Cloud COS',
  options: ['sts'],
  endpoint: (id) => `https://cos.${id}.myqcloud.com`,
  regions: [
    [0, 'AP_Beijing_1', 'ap-beijing-1', 'CN'],
    [1, 'AP_Beijing', 'ap-beijing', 'CN'],
    [2, 'AP_Shanghai', 'ap-shanghai', 'CN'],
    [3, 'AP_Guangzhou', 'ap-guangzhou', 'CN'],
    [4, 'AP_Chengdu', 'ap-chengdu', 'CN'],
    [5, 'AP_Chongqing', 'ap-chongqing', 'CN'],
    [6, 'AP_Shenzhen_FSI', 'ap-shenzhen-fsi', 'CN'],
    [7, 'AP_Shanghai_FSI', 'ap-shanghai-fsi', 'CN'],
    [8, 'AP_Beijing_FSI', 'ap-beijing-fsi', 'CN'],
    [9, 'AP_Hongkong', 'ap-hongkong', 'AP'],
    [10, 'AP_Singapore', 'ap-singapore', 'AP'],
    [11, 'AP_Mumbai', 'ap-mumbai', 'AP'],
    [12, 'AP_Seoul', 'ap-seoul', 'AP'],
    [13, 'AP_Bangkok', 'ap-bangkok', 'AP'],
    [14, 'AP_Tokyo', 'ap-tokyo', 'AP'],
    [15, 'NA_Siliconvalley', 'na-siliconvalley', 'NA'],
    [16, 'NA_Ashburn', 'na-ashburn', 'NA'],
    [17, 'NA_Toronto', 'na-toronto', 'NA'],
    [18, 'EU_Frankfurt', 'eu-frankfurt', 'EU'],
    [19, 'EU_Moscow', 'eu-moscow', 'EU'],
  ],
});
