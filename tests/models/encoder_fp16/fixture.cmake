# Written by tests/models/fp16/make_fp16.py: the encoder's two inputs, and the float16
# budget (docs/NUMERICS.md): rel L2 <= 2^-10 against ONNX Runtime's float16 run; the
# outputs are hidden states, not scores, so no argmax check.
set(FIXTURE_INPUTS x=x.npy mask=mask.npy)
set(FIXTURE_CHECK_ARGS 9.77e-4 --no-argmax)
