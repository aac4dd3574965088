// The onednn backend (issue 7): a second CPU engine on oneDNN 2.6 (Debian libdnnl-dev), behind the
// same Backend interface as backends/cpu. Built when TARE_WITH_ONEDNN is defined (CMake option
// TARE_WITH_ONEDNN, ON when oneDNN is found). docs/ONEDNN.md says what it claims.
#pragma once
#include <memory>

#include "backends/backend.h"

namespace tare::onednn {

std::unique_ptr<Backend> CreateOnednnBackend();

/// True when oneDNN dispatches to its AVX2 (FMA) kernels or later. Without FMA (its SSE4.1 and AVX
/// kernels: a CPU without AVX2, or ONEDNN_MAX_CPU_ISA=SSE41|AVX) oneDNN 2.6's eltwise_exp,
/// eltwise_logistic and eltwise_swish err up to 35 eps for |x| in [36, 88], over their 8 eps budget
/// (docs/FINDINGS.md F14), so the backend then leaves Exp, Sigmoid and SiLU to the reference kernels.
bool ExpKernelsInBudget();

}  // namespace tare::onednn
