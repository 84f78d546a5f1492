export { HoldState, type HoldWindow } from './hold.ts';
export { HoldSwitch, type HoldActions } from './hold-switch.ts';
