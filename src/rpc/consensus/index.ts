/** The consensus RPC (GET /status, /net_info, /lag_status, /health, /block, /commit) and /metrics. */
export type * from './backend.js';
export { registerConsensusRoutes, lagStatus, resultReply, errorReply, type ConsensusRoutesOptions } from './routes.js';
export { registerMetricsRoute, type MetricsScrape } from './metrics.js';
export { rfc3339, upperHex } from './format.js';
