export { registerPageRoutes } from './page-routes.ts';
export { registerChannelRoutes, type RouteDeps } from './routes.ts';
export { channelOpenApi } from './openapi.ts';
