/** JSON-RPC 2.0 with geth's errors and limits: parsing, dispatch, serialisation, serving. */
export { ErrorCode, RpcError, toRpcError, HANDLER_CRASHED_MESSAGE, type ErrorCodeValue, type RpcErrorObject } from './errors.js';
export { encodeId, errorResponse, resultResponse, responseText, responseSize, NULL_ID, type EncodedResponse, type RequestId } from './response.js';
export { classifyMessage, paramsArray, type ClassifiedMessage, type ValidMessage, type InvalidMessage } from './request.js';
export { expectParams, invalidArgument } from './params.js';
export { HTTP_CONTEXT, webSocketContext, type RequestContext } from './context.js';
export {
  Dispatcher,
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_MAX_IN_FLIGHT,
  type DispatcherOptions,
  type CallObserver,
  type MethodTable,
  type RpcMethodHandler,
} from './dispatcher.js';
export { serveJsonRpc, type ServeJsonRpcOptions } from './serve.js';
