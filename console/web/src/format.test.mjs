// Unit tests of the display helpers (node --test; run by console's Go tests).
import test from 'node:test';
import assert from 'node:assert/strict';
import { eventTitle, vesselOf } from './format.js';

const tc = (mode, voyage) => ({ modeOfTransport: mode, carrierVoyageNumber: voyage, vessel: mode === 'VESSEL' ? { vesselName: 'MAERSK KOWLOON' } : undefined });

test('a rail leg is loaded on rail, not on a vessel, and its train number is no voyage', () => {
  const e = { equipmentEventTypeCode: 'LOAD', transportCall: tc('RAIL', 'RT1398') };
  assert.equal(eventTitle(e), 'Loaded on rail');
  assert.equal(eventTitle({ ...e, equipmentEventTypeCode: 'DISC' }), 'Discharged from rail');
  assert.equal(vesselOf(e), null);
});

test('a truck leg names the truck', () => {
  assert.equal(eventTitle({ equipmentEventTypeCode: 'LOAD', transportCall: tc('TRUCK', '') }), 'Loaded on truck');
});

test('a vessel leg, or one without a mode, is the vessel with its voyage', () => {
  const e = { equipmentEventTypeCode: 'LOAD', transportCall: tc('VESSEL', '412W') };
  assert.equal(eventTitle(e), 'Loaded on vessel');
  assert.deepEqual(vesselOf(e), { name: 'MAERSK KOWLOON', imo: '', voyage: '412W' });
  assert.equal(eventTitle({ equipmentEventTypeCode: 'DISC' }), 'Discharged from vessel');
});
