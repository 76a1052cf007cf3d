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
  decodeDataset,
  recordError,
  type DecodedRecord,
  type DecodeOptions,
  type OnError,
  type RecordDecoder,
} from './decode.ts';
export { encodeBatches, encodeDataset, type EncodeOptions, type RecordEncoder, type SourceValue } from './encode.ts';
export { readJsonLines, toJsonLines } from './jsonl.ts';
export { decodeDatasetJsonLines, type JsonLinesBatch, type JsonTextDecoder } from './jsonl-fast.ts';
