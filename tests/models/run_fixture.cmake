# ctest driver for one committed fixture: tare convert, tare run on BACKEND, compare with the
# framework's outputs. Variables: TARE, CHECK, DIR (fixture folder), BACKEND, WORK (scratch folder).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${TARE} convert ${DIR}/model.onnx -o ${WORK}/model.tare RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tare convert failed (${rc})")
endif()
execute_process(COMMAND ${TARE} run ${WORK}/model.tare --backend ${BACKEND} --input ${DIR}/input.npy
                        --output-dir ${WORK}/out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tare run failed (${rc})")
endif()
execute_process(COMMAND ${CHECK} ${WORK}/out ${DIR}/expected RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "outputs differ from the framework's")
endif()
