export { registerPageRoutes } from './page-routes.ts';
export { registerChannelRoutes, type RouteDeps } from './routes.ts';
export { channelOpenApi } from './openapi.ts';
export { registerViewerTokenRoute, VIEWER_TOKEN_SECONDS } from './viewer-token.ts';
