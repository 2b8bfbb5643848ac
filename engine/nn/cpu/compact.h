#include <stdint.h>

int amt_compact_simd(int force);
void amt_f32_to_f16(uint16_t *dst, const float *src, int n);
void amt_f32_to_f16_fast(uint16_t *dst, const float *src, int n);
void amt_f16_to_f32(float *dst, const uint16_t *src, int n);
void amt_q8_gemv(const int8_t *w, const float *scale, const float *x, const float *bias, float *y, int rows, int cols);
void amt_attend_step(const float *qkv, uint16_t *kc, uint16_t *vc, int pos, int W, int NH, int hs, float alpha, float *scores, float *out);
void amt_gelu(float *out, const float *x, int n);
