/** The debug_ tracing namespace. */
export {
  createDebugMethods,
  parseTraceConfig,
  type BlockTraceEntry,
  type DebugBackend,
  type TraceCallBlock,
  type TraceCallRequest,
  type TraceOptions,
} from './methods.js';
export { formatStateAccess, type BlockStoreLookup, type ModuleFootprint, type StateAccess, type StateAccessReceipt } from './state-access.js';
export { parseBlockOverrides, parseTraceCallExtras, type TraceCallExtras } from './trace-call-params.js';
