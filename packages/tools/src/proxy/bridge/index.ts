/** The v1<->v2 bridge of `acp-kit proxy --bridge`. */
export { startBridge, type BridgeOptions, type BridgeMode, type BridgeHandle, type BridgeRoute } from './bridge.js';
export { Translator, type TranslatorOptions } from './translator.js';
