"""The argument types generation and the judge call each kernel with, by kernel (module.name):
the variants the build compiles ahead of time (``ahead_of_time``). Written by
``scripts/kernel_signatures.py``; a test checks them against what those call. numba's signature
strings: ``float64[::1]`` is a C-ordered 1-d array, ``UniTuple(T, n)`` n values of type T,
``Tuple((T, U))`` a T and a U."""

SIGNATURES: dict[str, tuple[str, ...]] = {
    'arrivals_kernel.all_posts': (
        'Tuple((float64[::1], int64[::1], int16[::1], int64[::1], boolean[::1]))(float64[::1], int16[::1], boolean[::1], int64[::1], float64[::1], float64[::1], int64)',
    ),
    'arrivals_kernel.rhythm_exponents': (
        'float64[:, :, ::1](float64[::1], float64[:, ::1], float64)',
    ),
    'arrivals_kernel.rhythm_sums': (
        'float64[:, ::1](float64, float64[:, ::1], float64[:, :, ::1])',
    ),
    'arrivals_kernel.thinned_slots': (
        'UniTuple(int64[::1], 2)(int16[::1], int16[::1], int64[::1], float64[:, ::1], float64[::1], float64[::1])',
    ),
    'arrivals_kernel.time_order': (
        'Tuple((int64[::1], int64[::1], float64[::1], int64[::1]))(float64[::1], int64[::1], float64[::1], float64, int64)',
    ),
    'content_kernel.chosen_updates': (
        'int16[::1](int64[::1], int16[::1], int16[::1], boolean[::1], float64[::1], float64)',
    ),
    'content_kernel.count_updates': (
        'none(int16[::1], int64[::1], int16[::1], int64[::1], boolean[::1], int64[::1], int64[::1])',
    ),
    'content_kernel.post_channels': (
        'int64[::1](int64[::1], int16[::1], int64[:, ::1], int64[::1], boolean[::1], boolean[::1], float64[::1], float64)',
    ),
    'content_kernel.thread_values': (
        'int16[::1](int16[::1], int16[::1], int64[::1])',
        'int64[::1](int64[::1], int16[::1], int64[::1])',
    ),
    'device_kernel.charge_runs': (
        'Tuple((int64[::1], float64[::1], boolean[::1]))(float64[::1], int64[::1], int64[::1], int64[::1], int64[::1], float64, float64, float64)',
    ),
    'device_kernel.slot_levels': (
        'Tuple((float64[::1], boolean[::1]))(float64[::1], int64[::1], float64[::1], boolean[::1], float64)',
    ),
    'device_kernel.slot_ringer': (
        'int16[::1](int8[::1], int64[::1], int64[::1], boolean[::1], int64[::1], boolean[::1], int64, float64, float64, int64, int64, int64)',
    ),
    'device_kernel.spending': (
        'Tuple((float64[::1], int64[::1]))(int8[::1], boolean[::1], float64[::1], float64, float64, boolean[::1])',
    ),
    'engagement_kernel.autoregression': (
        'float64[::1](float64[::1], float64)',
    ),
    'engagement_kernel.feature_sums': (
        'float64[::1](float64[::1], UniTuple(float64[:, ::1], 11), int64[::1], UniTuple(int64[::1], 11))',
        'float64[::1](float64[::1], UniTuple(float64[:, ::1], 7), int64[::1], UniTuple(int64[::1], 7))',
    ),
    'engagement_kernel.first_outside': (
        'int64(UniTuple(int16[::1], 18), int64[::1])',
        'int64(UniTuple(int64[::1], 11), int64[::1])',
        'int64(UniTuple(int64[::1], 7), int64[::1])',
    ),
    'engagement_kernel.open_logits': (
        'float64[::1](int64[::1], UniTuple(float64[::1], 8), UniTuple(float64[:, ::1], 11), UniTuple(int16[::1], 11), UniTuple(float64[:, ::1], 7), UniTuple(int16[::1], 7), float64[:, ::1], boolean[::1], float64[::1], float64[:, ::1], Tuple((float64[:, ::1], float64[:, ::1], float64[::1], float64[:, ::1])), UniTuple(int16[::1], 5), float64[:, :, ::1], int64[::1], int64[::1], float64[:, ::1], float64[:, ::1], UniTuple(int16[::1], 3), boolean[:, ::1], UniTuple(float64[::1], 4))',
    ),
    'engagement_kernel.row_states': (
        'Tuple((float64[::1], float64[::1], boolean[::1], float64[::1]))(float64[::1], int64[::1], int64, float64[::1], float64[::1], float64[::1], int64[::1], int8[::1], int64)',
    ),
    'engagement_kernel.situation_effects': (
        'float64[:, ::1](float64[:, :, ::1], int64[::1], int64[::1], float64[:, ::1], int64[::1], float64[:, ::1], int64[::1])',
    ),
    'engagement_kernel.state_exponents': (
        'float64[:, ::1](float64[::1], float64[::1], float64[::1], int64[::1], float64)',
    ),
    'exposure_kernel.keyed_decayed_sums': (
        'float64[::1](float64[::1], int64[::1], int64, float64, float64[::1], int64, float64)',
    ),
    'exposure_kernel.logged_decayed_sums': (
        'float64[:, ::1](float64[::1], int16[::1], int16[::1], float64[::1], int64, float64, float64, int16[::1], int16[::1], int64[::1], int64[::1], float64[::1], int64, float64)',
    ),
    'feasibility_kernel.carried_channels': (
        'int64[::1](int64[:, :, :, :, ::1], boolean[:, ::1], boolean[:, ::1], int16[::1], int16[::1], int16[::1], int16[::1], int16[::1], int16[::1], int16[::1])',
        'int64[::1](int64[:, :, :, :, ::1], boolean[:, ::1], boolean[:, ::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1])',
    ),
    'features_kernel.context_codes': (
        'int16[:, ::1](int64[::1], int64, int16[::1], int16[::1], int16[::1], int16[::1], int16[::1], float64[::1], float64[::1], int16[::1], boolean[::1], boolean[::1], boolean[::1], int64[:, ::1], int8[::1], float64[::1], int16[::1])',
    ),
    'nodes_kernel.trigger_lasts': (
        'boolean[::1](int64[::1], int64[::1], int64[::1], int8[::1], boolean[::1], int64[::1], int64[::1])',
    ),
    'regime_kernel.markov_chain': (
        'int8[::1](float64[::1], float64[:, ::1], float64[::1])',
    ),
    'routine_kernel.slot_places': (
        'int16[::1](int8[::1], int64, float64, float64[::1], int16[::1], int16[::1], int64, int64, int64)',
    ),
    'routine_kernel.slot_states': (
        'int8[::1](int64, float64, float64, float64[::1], float64[::1], boolean[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64[::1])',
    ),
    'sampling_kernel.categorical_codes': (
        "int16[::1](Array(float64, 2, 'C', readonly=True), float64[::1], int8[::1])",
        'int16[::1](float64[:, ::1], float64[::1], int64[::1])',
        'int16[::1](float64[:, ::1], float64[::1], int8[::1])',
    ),
    'sampling_kernel.state_runs': (
        'Tuple((int64[::1], int8[::1]))(int8[::1])',
    ),
    'seeding_kernel.sequence_states': (
        'uint64[:, ::1](uint64[:, ::1], int64)',
    ),
    'situations_kernel.clock_exponents': (
        'float64[:, ::1](float64[::1], float64, float64, float64[::1], float64[::1], boolean[::1])',
    ),
    'situations_kernel.situation_columns': (
        'float64[:, ::1](float64[:, ::1], float64[:, ::1], int64[::1], float64[:, ::1], int64[::1], float64[::1], int64[::1], float64[:, ::1], int64[::1], int64[::1])',
    ),
    'timings_kernel.branch_exponents': (
        'UniTuple(float64[::1], 3)(boolean[::1], boolean[::1], float64[::1], float64[::1], float64[::1], float64, float64, float64)',
    ),
    'timings_kernel.evening_exponents': (
        'float64[::1](float64[::1], float64, float64)',
    ),
    'timings_kernel.seconds_to_wake': (
        'float64[::1](int64[::1], float64[::1], float64[::1], float64[::1], int64)',
    ),
    'timings_kernel.seen_seconds': (
        'float64[::1](boolean[::1], float64[::1], float64, float64[::1], int16[::1], float64[::1], int16[::1], float64[::1], int8[::1], float64[::1], float64[::1])',
    ),
}
