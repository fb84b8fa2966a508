import { keySlot } from '../../src/store/slots';

test('keySlot gives the slots CLUSTER KEYSLOT gives', () => {
  // the examples of the CLUSTER KEYSLOT documentation, and the CRC16/XMODEM check value
  expect(keySlot('somekey')).toBe(11058);
  expect(keySlot('foo{hash_tag}')).toBe(2515);
  expect(keySlot('bar{hash_tag}')).toBe(2515);
  expect(keySlot('123456789')).toBe(0x31c3);
  // an empty tag hashes the whole key; only the first tag counts
  expect(keySlot('{}x')).not.toBe(keySlot(''));
  expect(keySlot('rq:{acme}:events')).toBe(keySlot('acme'));
});
