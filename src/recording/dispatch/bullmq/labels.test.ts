import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitsWorker, noFitReason, type WorkerLabels } from './labels.ts';

const w = (id: string, region?: WorkerLabels['region']): WorkerLabels => ({ id, region });

test('fitsWorker: region must match a labelled recorder; an unlabelled one serves any; excluded recorders never', () => {
  const cases: [WorkerLabels, Parameters<typeof fitsWorker>[1], boolean][] = [
    [w('a', 'EU'), { region: 'EU', excludedWorkers: [] }, true],
    [w('a', 'EU'), { region: 'NA', excludedWorkers: [] }, false],
    [w('a', 'EU'), { region: undefined, excludedWorkers: [] }, true],
    [w('a'), { region: 'CN', excludedWorkers: [] }, true],
    [w('a', 'EU'), { region: 'EU', excludedWorkers: ['a'] }, false],
    [w('a'), { region: undefined, excludedWorkers: ['b', 'a'] }, false],
    [w('a', 'EU'), { region: 'EU', excludedWorkers: ['b'] }, true],
  ];
  for (const [labels, needs, want] of cases) assert.equal(fitsWorker(labels, needs), want, JSON.stringify({ labels, needs }));
});

test('noFitReason names the acquire field at fault; nothing to say when one fits or none is registered', () => {
  assert.equal(noFitReason([], { region: 'EU', excludedWorkers: [] }), undefined, 'no recorder at all: the accept timeout answers');
  assert.equal(noFitReason([w('a', 'NA'), w('b', 'EU')], { region: 'EU', excludedWorkers: [] }), undefined);
  assert.equal(
    noFitReason([w('a', 'NA'), w('b', 'EU'), w('c', 'NA')], { region: 'AP', excludedWorkers: [] }),
    'clientRequest.region (acquire): no recorder serves region AP; the recorders serve EU, NA',
  );
  assert.equal(
    noFitReason([w('a', 'NA'), w('b', 'EU')], { region: 'EU', excludedWorkers: ['b'] }),
    'clientRequest.excludeResourceIds (acquire): every recorder of region EU runs or ran one of the excluded resources',
  );
  assert.equal(
    noFitReason([w('a'), w('b')], { region: undefined, excludedWorkers: ['a', 'b'] }),
    'clientRequest.excludeResourceIds (acquire): every recorder runs or ran one of the excluded resources',
  );
});
