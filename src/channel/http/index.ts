export { registerPageRoutes } from './page-routes.ts';
export { registerChannelRoutes, type RouteDeps } from './routes.ts';
