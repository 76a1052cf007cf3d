/** The EBCDIC code pages the codec carries, by IBM number; glibc's iconv names each `IBM<number>`. */

/** Single-byte EBCDIC code pages. */
export const SBCS_PAGES = [
  '037',
  '273',
  '274',
  '275',
  '277',
  '278',
  '280',
  '284',
  '285',
  '290',
  '297',
  '420',
  '424',
  '500',
  '870',
  '871',
  '875',
  '880',
  '1025',
  '1026',
  '1047',
  '1097',
  '1112',
  '1122',
  '1123',
  '1130',
  '1132',
  '1137',
  '1140',
  '1141',
  '1142',
  '1143',
  '1144',
  '1145',
  '1146',
  '1147',
  '1148',
  '1149',
  '1153',
  '1154',
  '1155',
  '1156',
  '1157',
  '1158',
  '1160',
  '1164',
  '1166',
  '4971',
] as const;

/** Mixed single/double-byte EBCDIC code pages: shift-out 0x0E starts double-byte characters, shift-in 0x0F ends. */
export const DBCS_PAGES = ['930', '933', '935', '937', '939', '1364', '1371', '1388', '1390', '1399'] as const;

export const SHIFT_OUT = 0x0e;
export const SHIFT_IN = 0x0f;
