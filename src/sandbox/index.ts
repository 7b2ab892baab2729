/** Sandbox exchange: a local exchange server over the matching engine, speaking both interfaces. */
export { startSandbox } from './sandbox.js';
export type { RunningSandbox, SandboxCredentials, SandboxOptions, SandboxUrls } from './sandbox.js';
export { loadSandboxConfig, resolveSandboxConfig, sandboxConfigSchema } from './config.js';
export type { MarketActivity, SandboxAccount, SandboxConfig, SandboxConfigInput, SandboxSymbol } from './config.js';
export { FaultController } from './faults.js';
export type { FaultScope } from './faults.js';
export { CancelFaultMode } from './faults.js';
export { sandboxCommand } from './cli.js';
export { parseControl, controlError, controlResult } from './ws-control.js';
export { scanJson } from './json-syntax.js';
export { parseStreamName } from './stream-names.js';
export type { StreamName } from './stream-names.js';
