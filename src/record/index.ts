/** Recording format, streaming reader, writer, recorder, importers and the record command. */
export * from './format.js';
export * from './reader.js';
export * from './line-reader.js';
export * from './writer.js';
export * from './recorder.js';
export * from './importers.js';
export * from './config.js';
export { recordCommand, RECORD_USAGE } from './cli.js';
