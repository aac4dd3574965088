// The onednn backend (issue 7): a second CPU engine on oneDNN 2.6 (Debian libdnnl-dev), behind the
// same Backend interface as backends/cpu. Built when TARE_WITH_ONEDNN is defined (CMake option
// TARE_WITH_ONEDNN, ON when oneDNN is found). docs/ONEDNN.md says what it claims.
#pragma once
#include <memory>

#include "backends/backend.h"

namespace tare::onednn {

std::unique_ptr<Backend> CreateOnednnBackend();

}  // namespace tare::onednn
