// `node --import tsx --import ./test/fresh-graph.mjs`: registers the fresh-graph hooks after tsx's.
import { register } from 'node:module';

register('./fresh-graph-hooks.mjs', import.meta.url);
