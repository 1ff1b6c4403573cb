import FactorRegistryApp
import ServiceKit

await ServiceMain.run(.factorRegistry, build: FactorRegistryApp.build)
