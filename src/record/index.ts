/** Recording format, streaming reader, writer, recorder and importers (the `record` command is cli/record.ts). */
export * from './format.js';
export * from './reader.js';
export * from './line-reader.js';
export * from './writer.js';
export * from './recorder.js';
export * from './importers.js';
export * from './config.js';
