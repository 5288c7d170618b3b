/** The longest delay a timer can hold (2^31−1 ms, about 24.8 days); `setTimeout` fires at once beyond it. */
export const MAX_TIMER_MS = 2_147_483_647;
