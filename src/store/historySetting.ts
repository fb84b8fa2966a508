/** The named channel setting that turns a channel's history on (lua/lib/history.lua). */
export const HISTORY_SETTING = 'history_seconds';
