/**
 * Mainframe data sets: files of records in `F`, `FB`, `V` or `VB` format, read and written as streams against a
 * compiled layout (`@corebridge/records/dataset`).
 */
export { DatasetError, type DatasetPlace } from './errors.ts';
export {
  DEFAULT_BLKSIZE,
  isVariable,
  RECORD_FORMATS,
  RecordReader,
  RecordWriter,
  type FramingOptions,
  type RawRecord,
  type RecordFormat,
} from './framing.ts';
export {
  DatasetDecoder,
  decodeDataset,
  decodeRawRecord,
  recordError,
  type DecodedRecord,
  type DecodeOptions,
  type OnError,
  type RecordDecoder,
} from './decode.ts';
export {
  encodeBatches,
  encodeDataset,
  encodeJsonLines,
  type EncodedBatch,
  type EncodeOptions,
  type JsonLinesEncodeOptions,
  type RecordEncoder,
  type SourceValue,
} from './encode.ts';
export { readJsonLines, toJsonLines } from './jsonl.ts';
export { csvCell, csvHeader, csvTable, toCsvRows, type CsvTable } from './csv.ts';
export {
  compileSegments,
  nestSegments,
  parseSegments,
  resolveSegments,
  segmentKey,
  SegmentedLayout,
  SegmentsError,
  unnestSegments,
  withViews,
  type Segment,
  type SegmentCompile,
  type SegmentFile,
  type SegmentLayout,
  type SegmentsCompileOptions,
  type SegmentsSpec,
} from './segments.ts';
export {
  describeFraming,
  formatVerifyReport,
  verifyDataset,
  type HintConfidence,
  type VerifyHint,
  type VerifyLayout,
  type VerifyOptions,
  type VerifyReport,
} from './verify.ts';
export {
  bdwLength,
  blockRecords,
  filePart,
  parseSplit,
  rdwLength,
  SYNC_DEPTH,
  syncAt,
  type FilePart,
  type ReadAt,
} from './split.ts';
export { decodeDatasetJsonLines, JsonLinesDecoder, type JsonLinesBatch, type JsonTextDecoder } from './jsonl-fast.ts';
export {
  BYTES_KEY,
  byteRanges,
  exactDecoder,
  exactEncoder,
  type ByteRange,
  type ExactEncoderOptions,
} from './exact.ts';
