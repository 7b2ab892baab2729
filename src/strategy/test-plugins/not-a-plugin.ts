/** Test module whose default export is not a strategy plugin. */
export default { name: 'nope' };
