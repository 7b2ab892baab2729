/** Configuration: YAML schema and loader, credentials from the environment, redacting logger. */
export * from './schema.js';
export * from './loadConfig.js';
export * from './source.js';
export * from './yamlFile.js';
export * from './secrets.js';
export * from './logger.js';
export { jsonSchemaText, SCHEMA_FILE } from './jsonSchema.js';
