// The web console at `/` (docs/console.md).
export { createConsoleModule } from './module.ts';
export { consoleSettings, type ConsoleSettings } from './routes.ts';
