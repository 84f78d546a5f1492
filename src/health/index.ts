// Liveness and readiness of a process: /healthz and /readyz with the checks of its roles (docs/deployment.md).
export { databaseCheck, redisCheck, storageCheck } from './checks.ts';
export { checkReadiness, type CheckOutcome, type Readiness, type ReadinessCheck } from './readiness.ts';
export { registerHealthRoutes, type HealthRoutesOptions } from './routes.ts';
export { healthOpenApi } from './openapi.ts';
