// Second reporter of a batch worker (scripts/test-batch/worker.mjs): one line per test file, for scripts/test.mjs.
// Each file is a suite at nesting 0 named by its path; its tests are counted as node:test counts them in a process of
// their own (suites themselves are not tests).
export default async function* fileResults(source) {
  let counts = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    if (data.nesting === 0) {
      const ok = event.type === 'test:pass' && counts.fail === 0 && counts.cancelled === 0;
      yield `ℹ file_result ${JSON.stringify({ file: data.name, ok, ms: data.details?.duration_ms ?? 0, counts })}\n`;
      counts = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
      continue;
    }
    if (data.details?.type === 'suite') continue;
    counts.tests++;
    if (data.skip) counts.skipped++;
    else if (data.todo) counts.todo++;
    else if (event.type === 'test:pass') counts.pass++;
    else if (data.details?.error?.failureType === 'cancelledByParent') counts.cancelled++;
    else counts.fail++;
  }
}
