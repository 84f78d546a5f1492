// Test helpers of the recording API: clients (inject and raw HTTP), recorder doubles, the start rule cases.
export { recordingClient, startRequest, storage, TEST_APP_ID, TEST_AUTH, type RecordingClient, type Res } from './client.ts';
export { rawRequest, recordingPaths, type RawRequest, type RawResponse } from './http-client.ts';
export { testRecordingTask, type TestTaskSource } from './recording-task.ts';
export { allDoubles, RecorderDouble, sampleFiles, type DoubleOptions, type DoubleSession } from './recorder-double.ts';
export { editedStart, START_RULE_CASES, type RuleCase } from './start-rule-cases.ts';
